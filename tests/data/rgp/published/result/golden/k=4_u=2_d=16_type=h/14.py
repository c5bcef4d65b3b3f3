FIRST = 'A'
row_of = {FIRST: '**..', 'B': '..**'}
