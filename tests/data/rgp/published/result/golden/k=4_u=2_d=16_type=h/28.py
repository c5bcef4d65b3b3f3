if s[1] == 'C':
    print('*.*.')
elif s[1] == 'D':
    print('.*.*')
else:
    print('....')
