if s[0] == 'A':
    print('**..')
else:
    print('..**')
