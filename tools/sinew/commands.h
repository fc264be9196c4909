/* Every CLI command, one line each. A command lives in cmd_<name>.c. */
#ifndef SINEW_COMMANDS_H
#define SINEW_COMMANDS_H

int cmd_version(int argc, char **argv);

#endif
