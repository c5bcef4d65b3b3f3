if s[0] == 'B':
    if s[1] == 'D':
        if s[2] == 'F':
            print('*')
