#include "core/codegen/kerneltemplate.h"

#include <nlohmann/json.hpp>

namespace kx {

std::string toJson(const Genome &genome)
{
    return nlohmann::json{{"template", genome.templateName}, {"params", genome.params}}.dump();
}

Expected<Genome> genomeFromJson(const std::string &json)
{
    try {
        const auto j = nlohmann::json::parse(json);
        Genome genome;
        genome.templateName = j.at("template").get<std::string>();
        genome.params = j.at("params").get<Params>();
        return genome;
    } catch (const nlohmann::json::exception &error) {
        return Error{std::string("not a template genome: ") + error.what()};
    }
}

} // namespace kx
