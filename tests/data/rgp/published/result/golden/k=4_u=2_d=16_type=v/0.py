if s[0] == 'A' and s[1] == 'D':
    print('*..*')
