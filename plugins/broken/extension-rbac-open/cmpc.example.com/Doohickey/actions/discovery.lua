local actions = {}
actions["pause"] = {["disabled"] = obj.spec ~= nil and obj.spec.paused == true}
return actions
