first = 'A'
print('**..' if s[0] == first else '..**')
