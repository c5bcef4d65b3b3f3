ifrow = 'A'
print(ifrow + '.')
