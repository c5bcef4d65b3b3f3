top = {'A': '**..'}
bottom = {'A': '..**'}
