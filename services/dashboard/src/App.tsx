import { Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { Layout } from './components/Layout';
import { RequireSession } from './components/RequireSession';
import { preloadWhenIdle } from './pages';
import { Loading } from './components/Status';
import { sessionRoutes } from './session-routes';
import { signedOutRoutes } from './signed-out-routes';

export function App() {
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        {signedOutRoutes()}
        <Route
          element={
            <RequireSession>
              <Layout preloadWhenIdle={preloadWhenIdle} />
            </RequireSession>
          }
        >
          {sessionRoutes()}
        </Route>
      </Routes>
    </Suspense>
  );
}
