/*
 * rcfile.h - the user's configuration file, $XDG_CONFIG_HOME/hdsim/config
 * (else ~/.config/hdsim/config), and who the learner is: their name, and
 * the id their class roster knows them by.
 */
#ifndef HD_RCFILE_H
#define HD_RCFILE_H

/*
 * The learner named in the configuration file: a line "learner = NAME";
 * blank lines and lines starting with # are skipped, other keys ignored,
 * and the last such line wins.  NULL when there is none (or no file).  The
 * name lives in static storage until the next call.  A learner names
 * themselves once there instead of on every command.
 */
const char *hd_rcfile_file_learner(void);

/*
 * Whose answers: `given` (--learner) when not NULL, else $HDSIM_LEARNER,
 * else the configuration file's learner, else $USER, else "learner".
 */
const char *hd_rcfile_learner(const char *given);

/*
 * The learner's id for the class roster (a student number or a login, as
 * the instructor asks): $HDSIM_LEARNER_ID, else the configuration file's
 * last "learner-id = ID" line; NULL when neither gives one.  When from is
 * not NULL it gets where the id came from ("$HDSIM_LEARNER_ID" or the
 * file's path), for messages.  Values live in static storage until the next
 * call; the caller checks them (hd_store_roster_id_check).
 */
const char *hd_rcfile_learner_id(const char **from);

#endif
