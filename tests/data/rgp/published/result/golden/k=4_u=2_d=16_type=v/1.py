if s[0] == 'A':
    if s[1] == 'C':
        print('**..\n*..*')
    else:
        print('**..\n.**.')
else:
    if s[1] == 'C':
        print('..**\n*..*')
    else:
        print('..**\n.**.')
