if s[0] == 'A':
    ROW = {'A': '*..*'}
print(ROW.get(s[0], '....'))
