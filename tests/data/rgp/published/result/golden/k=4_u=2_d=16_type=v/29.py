if s[0] == 'A':
    print('**..')
if s[0] == 'A':
    print('*')
