def row(c):
    return {'G': '.*.*', 'H': '*.*.'}[c]
