// Umbrella header: the whole IR (TIR + Relax + module).
#ifndef KILN_COMPILER_IR_IR_H_
#define KILN_COMPILER_IR_IR_H_

#include "compiler/ir/base.h"
#include "compiler/ir/container.h"
#include "compiler/ir/distributed.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/expr.h"
#include "compiler/ir/module.h"
#include "compiler/ir/object.h"
#include "compiler/ir/reflection.h"
#include "compiler/ir/relax.h"
#include "compiler/ir/relax_type.h"
#include "compiler/ir/tir.h"
#include "compiler/ir/type.h"

#endif  // KILN_COMPILER_IR_IR_H_
