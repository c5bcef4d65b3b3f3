if s[0] == 'B': print('.**.')
else: print('*..*')
