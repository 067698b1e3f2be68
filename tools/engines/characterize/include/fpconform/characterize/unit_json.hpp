// A unit's stages as JSON, for `models --json` and device profiles: an array in the text form's
// order, each stage an object {"stage": name, key: value, ...} with the arguments its text
// writes (those that differ from the defaults): integers as numbers, flags as true, words as
// strings (a bare word under the key naming it: out's "mode", c's "place", tree's "tree").
#pragma once

#include <nlohmann/json.hpp>

#include "fpconform/unit_model.hpp"

namespace fpconform::characterize {

template <class Json = nlohmann::ordered_json>
Json unit_stages_json(const UnitModel& m) {
  Json stages = Json::array();
  for (const UnitStage& s : unit_stages(m)) {
    Json stage = Json::object();
    stage["stage"] = s.name;
    for (const StageArg& a : s.args) {
      if (a.kind == StageArg::Kind::flag) stage[a.key] = true;
      else if (a.kind == StageArg::Kind::integer) stage[a.key] = a.integer;
      else stage[a.key] = a.word;
    }
    stages.push_back(stage);
  }
  return stages;
}

}  // namespace fpconform::characterize
