/*
 * sim_backend.h - the simulator as a backend (ir/backend.h): the model on a
 * profile.  It runs anywhere.
 */
#ifndef HD_SIM_BACKEND_H
#define HD_SIM_BACKEND_H

#include "ir/backend.h"

extern const struct hd_backend_ops hd_sim_backend;

#endif
