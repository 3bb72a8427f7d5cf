// JSON form of SearchSettings (stored with each run).
#include "core/search/searchengine.h"

#include "core/eval/protocol.h"

#include <nlohmann/json.hpp>

namespace kx {

std::string toJson(const SearchSettings &settings)
{
    const nlohmann::json j{{"seed", settings.seed},
                           {"childrenPerGeneration", settings.childrenPerGeneration},
                           {"eliteSize", settings.eliteSize},
                           {"crossoverRate", settings.crossoverRate},
                           {"steppingStones", settings.steppingStones},
                           {"similarOps", settings.similarOps},
                           {"retimeTop", settings.retimeTop},
                           {"budget",
                            {{"generations", settings.budget.generations},
                             {"candidates", settings.budget.candidates},
                             {"seconds", settings.budget.seconds},
                             {"noImprovement", settings.budget.noImprovement}}},
                           // The Inductor part is the host's, prepared again when a run continues.
                           {"eval", settings.eval}};
    return j.dump();
}

Expected<SearchSettings> searchSettingsFromJson(const std::string &json)
{
    try {
        const auto j = nlohmann::json::parse(json);
        SearchSettings settings;
        settings.seed = j.value("seed", settings.seed);
        settings.childrenPerGeneration = j.value("childrenPerGeneration", settings.childrenPerGeneration);
        settings.eliteSize = j.value("eliteSize", settings.eliteSize);
        settings.crossoverRate = j.value("crossoverRate", settings.crossoverRate);
        settings.steppingStones = j.value("steppingStones", settings.steppingStones);
        settings.similarOps = j.value("similarOps", settings.similarOps);
        settings.retimeTop = j.value("retimeTop", settings.retimeTop);
        if (const auto it = j.find("budget"); it != j.end()) {
            auto &budget = settings.budget;
            budget.generations = it->value("generations", budget.generations);
            budget.candidates = it->value("candidates", budget.candidates);
            budget.seconds = it->value("seconds", budget.seconds);
            budget.noImprovement = it->value("noImprovement", budget.noImprovement);
        }
        if (const auto it = j.find("eval"); it != j.end())
            it->get_to(settings.eval); // fields an older run lacks keep their defaults
        if (settings.childrenPerGeneration < 1 || settings.eliteSize < 1)
            return Error{"search settings: childrenPerGeneration and eliteSize must be at least 1"};
        return settings;
    } catch (const nlohmann::json::exception &error) {
        return Error{std::string("search settings are not valid JSON: ") + error.what()};
    } catch (const std::invalid_argument &error) {
        return Error{std::string("search settings: ") + error.what()};
    }
}

} // namespace kx
