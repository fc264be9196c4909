/* Every CLI command, one line each. A command lives in cmd_<name>.c. */
#ifndef SINEW_COMMANDS_H
#define SINEW_COMMANDS_H

int cmd_version(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_creature(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_stretch(int argc, char **argv);
int cmd_bake(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_tail(int argc, char **argv);
int cmd_batch(int argc, char **argv);

#endif
