want: str = 'G'
print('*' if s[3] == want else '.')
