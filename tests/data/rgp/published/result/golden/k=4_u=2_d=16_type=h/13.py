BASE = '*..*'
row_of = {'A': BASE, 'B': '.**.'}
