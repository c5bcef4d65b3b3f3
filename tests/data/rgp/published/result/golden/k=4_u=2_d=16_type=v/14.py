for L in 'ACEG':
    print('*' if L in s else '.')
