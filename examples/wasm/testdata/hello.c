#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
	int squares[16];
	for (int i = 0; i < 16; i++)
		squares[i] = i * i;
	printf("hello from %s\n", argv[0]);
	for (int i = 1; i < argc; i++)
		printf("arg %d: %s\n", i, argv[i]);
	const char *who = getenv("WHO");
	if (who)
		printf("WHO=%s\n", who);
	const char *name = getenv("FILE");
	if (name) {
		FILE *f = fopen(name, "r");
		if (!f) {
			perror(name);
			return 1;
		}
		char line[256];
		while (fgets(line, sizeof line, f))
			printf("%s: %s", name, line);
		fclose(f);
	}
	printf("15 squared is %d\n", squares[15]);
	return argc > 2 ? 3 : 0;
}
