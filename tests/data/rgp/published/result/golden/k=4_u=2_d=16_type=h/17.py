fallback = {'else': '....', 'G': '*.*.'}
