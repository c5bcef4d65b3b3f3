g = ''
g += 'A'
print(g + '.')
