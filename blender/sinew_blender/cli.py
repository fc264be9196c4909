"""Finding and running the sinew CLI (no bpy here, so it can be tested without Blender)."""
import json
import os
import shutil
import subprocess

# The CLI's defaults and ranges for the spring options the panel shows (sinew tail --help,
# sinew bake --help). The frequency's upper bound is the library's; at low damping the CLI
# refuses a lower one (the fastest spring its step integrates stably) and says so.
FREQUENCY_DEFAULT, FREQUENCY_MIN, FREQUENCY_MAX = 0.9, 0.01, 100.0  # Hz
DAMPING_DEFAULT, DAMPING_MIN, DAMPING_MAX = 0.65, 0.01, 10.0  # damping ratio
CARRY_DEFAULT, CARRY_MIN, CARRY_MAX = 50.0, 0.0, 180.0  # degrees


class SinewError(Exception):
    """A failure the user can act on; its text is shown as the operator's error."""


def find_cli(preference_path=""):
    """The sinew executable: the add-on's preference, else $SINEW_CLI, else `sinew` on PATH.

    A path that is set but does not name an executable is an error rather than a reason to
    fall through: the user asked for that file, and a silent fallback would run another one.
    """
    for where, path in (("the add-on preference", preference_path),
                        ("SINEW_CLI", os.environ.get("SINEW_CLI", ""))):
        if path:
            path = os.path.abspath(os.path.expanduser(path))
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return path
            raise SinewError(f"sinew CLI not found: {where} names '{path}', "
                             "which is not an executable file")
    found = shutil.which("sinew")
    if found:
        return found
    raise SinewError("sinew CLI not found: set its path in the add-on's preferences "
                     "(Edit > Preferences > Add-ons > sinew), or the SINEW_CLI environment "
                     "variable, or put 'sinew' on PATH")


def spring_options(frequency, damping, carry):
    """The CLI's spring options for these settings (Hz, damping ratio, degrees)."""
    return ["--frequency", f"{frequency:g}", "--damping", f"{damping:g}", "--carry", f"{carry:g}"]


def tail_command(cli, src, out, report, bake=True, frequency=FREQUENCY_DEFAULT,
                 damping=DAMPING_DEFAULT, carry=CARRY_DEFAULT):
    """The argument list of `sinew tail SRC -o OUT --report REPORT` with the spring options."""
    args = [cli, "tail", src, "-o", out, "--report", report]
    args += spring_options(frequency, damping, carry)
    if not bake:
        args.append("--no-bake")
    return args


def bake_command(cli, src, out, frequency=FREQUENCY_DEFAULT, damping=DAMPING_DEFAULT,
                 carry=CARRY_DEFAULT):
    """The argument list of `sinew bake SRC -o OUT` with the spring options."""
    return [cli, "bake", src, "-o", out] + spring_options(frequency, damping, carry)


def run(args):
    """Runs the CLI and returns what it printed.

    The CLI explains every refusal on stderr (a bad option, a file it cannot read), so that
    text, not the exit code, is what the user sees when it fails.
    """
    try:
        done = subprocess.run(args, capture_output=True, text=True, check=False)
    except OSError as e:
        raise SinewError(f"could not run {args[0]}: {e}") from e
    if done.returncode != 0:
        message = (done.stderr or done.stdout).strip().splitlines()
        raise SinewError(message[0] if message else
                         f"{os.path.basename(args[0])} {args[1]} failed (exit {done.returncode})")
    return done.stdout


def read_report(path):
    """The JSON report `sinew tail --report` wrote, as a dict."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise SinewError(f"sinew wrote no readable report: {e}") from e


def own_chain(report):
    """Whether the tail the skeleton already has is a chain sinew made (Tail_1..Tail_K), the
    one `sinew bake` can bake again."""
    return report.get("rigged_tail", "").startswith("Tail_")
