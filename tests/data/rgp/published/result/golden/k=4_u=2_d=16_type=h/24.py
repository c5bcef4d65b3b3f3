ROW = {c: p for c, p in zip('AB', ['*..*', '.**.'])}
print(ROW[s[0]])
