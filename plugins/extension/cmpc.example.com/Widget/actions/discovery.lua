-- A Widget can be restarted at any time, and paused unless it already is.
local actions = {}
actions["restart"] = {["disabled"] = false}
actions["pause"] = {["disabled"] = obj.spec ~= nil and obj.spec.paused == true}
return actions
