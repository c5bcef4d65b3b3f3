try:
    row = '*..*'
except KeyError:
    row = '....'
else:
    print('.**.')
