/*
 * config.h - the user's configuration file, $XDG_CONFIG_HOME/hdsim/config
 * (else ~/.config/hdsim/config), and who the learner is.
 *
 * Files in cli/ that want autoconf's config.h include it as <config.h>:
 * "config.h" from here would find this file first.
 */
#ifndef HD_CLI_CONFIG_H
#define HD_CLI_CONFIG_H

/*
 * The learner named in the configuration file: a line "learner = NAME";
 * blank lines and lines starting with # are skipped, other keys ignored,
 * and the last such line wins.  NULL when there is none (or no file).  The
 * name lives in static storage until the next call.  A learner names
 * themselves once there instead of on every command.
 */
const char *hd_config_file_learner(void);

/*
 * Whose answers: `given` (--learner) when not NULL, else $HDSIM_LEARNER,
 * else the configuration file's learner, else $USER, else "learner".
 */
const char *hd_config_learner(const char *given);

#endif
