#pragma once

// JSON forms of the domain types, shared by the worker protocol, the archive and export/import.
#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/domain/run.h"
#include "core/domain/verdict.h"

#include <nlohmann/json.hpp>

namespace kx {

void to_json(nlohmann::json &j, const TensorSpec &v);
void from_json(const nlohmann::json &j, TensorSpec &v);
void to_json(nlohmann::json &j, const OpPolicy &v);
void from_json(const nlohmann::json &j, OpPolicy &v);
void to_json(nlohmann::json &j, const Op &v);
void from_json(const nlohmann::json &j, Op &v);
void to_json(nlohmann::json &j, const Candidate &v);
void from_json(const nlohmann::json &j, Candidate &v);
void to_json(nlohmann::json &j, const GpuInfo &v);
void from_json(const nlohmann::json &j, GpuInfo &v);
void to_json(nlohmann::json &j, const CompileStats &v);
void from_json(const nlohmann::json &j, CompileStats &v);
void to_json(nlohmann::json &j, const ErrorProfile &v);
void from_json(const nlohmann::json &j, ErrorProfile &v);
void to_json(nlohmann::json &j, const PrecisionAudit &v);
void from_json(const nlohmann::json &j, PrecisionAudit &v);
void to_json(nlohmann::json &j, const CorrectnessReport &v);
void from_json(const nlohmann::json &j, CorrectnessReport &v);
void to_json(nlohmann::json &j, const TimingSummary &v);
void from_json(const nlohmann::json &j, TimingSummary &v);
void to_json(nlohmann::json &j, const Flag &v);
void from_json(const nlohmann::json &j, Flag &v);
/// Baseline JSON leaves out the archive row id and the run id, as Evaluation JSON does.
void to_json(nlohmann::json &j, const BaselineMeasurement &v);
void from_json(const nlohmann::json &j, BaselineMeasurement &v);
/// Evaluation JSON leaves out the archive row id and the run id (they are local to one archive).
void to_json(nlohmann::json &j, const Evaluation &v);
void from_json(const nlohmann::json &j, Evaluation &v);
void to_json(nlohmann::json &j, const Verdict &v);
void from_json(const nlohmann::json &j, Verdict &v);
/// Run JSON leaves out the archive row id; runs are identified by uid.
void to_json(nlohmann::json &j, const Run &v);
void from_json(const nlohmann::json &j, Run &v);

} // namespace kx
