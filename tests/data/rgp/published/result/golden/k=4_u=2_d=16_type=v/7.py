print('*..*' if s[3] == 'G' else '.**.')
