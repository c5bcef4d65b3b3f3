match s[0]:
    case 'A':
        print('*.*.')
    case _:
        print('.*.*')
