if s[2] in 'EF':
    print('*..*')
