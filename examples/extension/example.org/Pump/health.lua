-- A Pump is Healthy while it is Running and its pressure is in range,
-- Degraded when it has Stalled, Progressing otherwise.
local hs = {status = "Progressing", message = "the pump is starting"}
local phase = obj.status.phase
if phase == "Running" then
  hs.status = "Healthy"
  hs.message = "pumping at " .. obj.status.pressure .. " bar"
elseif phase == "Stalled" then
  hs.status = "Degraded"
  hs.message = obj.status.reason or "the pump has stalled"
end
return hs
