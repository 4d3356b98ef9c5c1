-- The UI witnesses' kind: its health is sound; what they get wrong is their UI.
local hs = {status = "Progressing", message = "waiting for the gizmo"}
if obj.status ~= nil and obj.status.ready == true then
  hs.status, hs.message = "Healthy", "the gizmo is ready"
end
return hs
