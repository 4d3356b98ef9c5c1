-- Every kind of every group under fleet.cmpc.example.com (the folder's _ is
-- Argo CD's wildcard *): Healthy once status.phase is Running, Degraded when
-- it is Failed, Progressing until then. Installed through argocd-cm's legacy
-- resource.customizations key, the only one that takes a wildcard.
local hs = {status = "Progressing", message = "Waiting for a phase"}
if obj.status == nil or obj.status.phase == nil then
  return hs
end
hs.message = obj.status.message or obj.status.phase
if obj.status.phase == "Running" then
  hs.status = "Healthy"
elseif obj.status.phase == "Failed" then
  hs.status = "Degraded"
end
return hs
