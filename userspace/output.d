output.o: output.c output.h
output.h:
