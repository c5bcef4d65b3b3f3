DATA = """
A C E G
*...
"""
print(DATA)
