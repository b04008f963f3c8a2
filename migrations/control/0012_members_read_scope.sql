-- members:read (DESIGN.md section 14) closes the members directory to credentials without it.
-- Keys, grants and app installations made before the scope existed read the directory through
-- any read scope, so those holding one keep it. Idempotent: a credential already holding
-- members:read, or holding no read scope, is left as it is.
UPDATE api_keys SET scopes = json_insert(scopes, '$[#]', 'members:read')
WHERE EXISTS (SELECT 1 FROM json_each(api_keys.scopes) WHERE value LIKE '%:read')
  AND NOT EXISTS (SELECT 1 FROM json_each(api_keys.scopes) WHERE value = 'members:read');

UPDATE oauth_grants SET scopes = json_insert(scopes, '$[#]', 'members:read')
WHERE EXISTS (SELECT 1 FROM json_each(oauth_grants.scopes) WHERE value LIKE '%:read')
  AND NOT EXISTS (SELECT 1 FROM json_each(oauth_grants.scopes) WHERE value = 'members:read');

UPDATE oauth_app_installations SET scopes = json_insert(scopes, '$[#]', 'members:read')
WHERE EXISTS (SELECT 1 FROM json_each(oauth_app_installations.scopes) WHERE value LIKE '%:read')
  AND NOT EXISTS (SELECT 1 FROM json_each(oauth_app_installations.scopes) WHERE value = 'members:read');
