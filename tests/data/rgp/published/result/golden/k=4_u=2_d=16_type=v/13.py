for row in ['*..*', '.**.', '****', '....']:
    print(row)
