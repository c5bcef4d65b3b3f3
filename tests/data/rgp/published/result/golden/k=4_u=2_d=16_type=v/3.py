if s[3] == 'G':
    if s[2] == 'E':
        print('*')
elif s[3] == 'H':
    print('.')
else:
    print('..')
