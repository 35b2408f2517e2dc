/*
 * hdsim.c - main(): the whole program lives in the libraries (cli/ and sim/),
 * which the tests link too.
 */
#include "cli/cli.h"

int
main(int argc, char **argv)
{
	return hd_cli_main(argc, argv);
}
