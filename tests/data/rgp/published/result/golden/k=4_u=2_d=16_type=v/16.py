a = 'C'
b = a
print('*.*.' if s[1] == b else '.*.*')
