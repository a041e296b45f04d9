/* stackwalk convert: the subcommand that rewrites a snapshot of any format
 * as a .snap file (docs/cli.md, "Converting to .snap"). */
#ifndef SW_CMD_CONVERT_H
#define SW_CMD_CONVERT_H

/* argv[0] is "convert"; returns the exit status (docs/cli.md). */
int sw_convert_main(int argc, char **argv);

#endif
