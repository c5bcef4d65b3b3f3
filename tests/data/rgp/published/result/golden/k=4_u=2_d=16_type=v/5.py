if s[0] == 'A':
    print('*')
if s[1] == 'C':
    print('.')
else:
    print('..')
