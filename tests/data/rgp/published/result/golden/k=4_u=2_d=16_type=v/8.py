row = '**..' if s[1] == 'D' else '..**'
print(row)
