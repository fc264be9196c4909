/* Private to src/pipeline. */
#ifndef SINEW_PIPELINE_INTERNAL_H
#define SINEW_PIPELINE_INTERNAL_H

#include "sinew/pipeline.h"

/* wing.c: simulates a wing chain of the plan with a wing's springs over every clip of `model`
 * and bakes it into the model and into `doc` (when not NULL), as sinew_bake_all does for the
 * tail. */
sinew_result pipeline_bake_wing(sinew_document *doc, sinew_model *model,
                                const sinew_rig_chain *chain, const sinew_bake_options *options,
                                sinew_error *err);

#endif
