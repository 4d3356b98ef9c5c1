-- Overrides Argo CD's built-in health of cert-manager's Certificate, which
-- calls a Certificate whose Ready condition is True Healthy: this one calls
-- it Suspended, which the built-in never says, so the live object shows
-- which script answered.
local hs = {}
hs.status = "Suspended"
hs.message = "the customization answered, not Argo CD's built-in script"
return hs
