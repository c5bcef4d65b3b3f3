ROW = {
    c: ('*' if c in 'ACEG' else '.') * 4
    for c in 'ABCDEFGH'
}
print(ROW[s[1]])
