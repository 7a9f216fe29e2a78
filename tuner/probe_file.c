/* The probe's measurement-file loader and the records it fills, compiled
 * into the tuner: costs_probe.c reads topobcast-probe --save files with
 * the probe's own code rather than a second reader.  Included rather than
 * linked from probe/ because each tool of a directory is built from that
 * directory's files (test/smpi/module.mk); the regular build uses this
 * file too, so both builds link the same thing. */
#include "../probe/meas.c"
#include "../probe/save.c"
