for c in s:
    print('*')
else:
    print('.')
