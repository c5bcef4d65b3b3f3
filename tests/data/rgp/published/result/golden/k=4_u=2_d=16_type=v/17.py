on_letter, off_letter = 'E', 'F'
print('*' if s[2] == on_letter else '.')
