# Floods stderr, then prints the right answer: stderr is capped, stdout still judged.
import sys
for _ in range(50):
    sys.stderr.write("x" * 1_000_000)
print(input().lower())
