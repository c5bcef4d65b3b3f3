if s[0] == 'I':
    print('*')
